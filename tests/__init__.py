"""pfcore's tests: tiny local models, AppTests, browser tests."""
