"""The app's shared UI: the sidebar model picker and cached loaders, the error boundary,
progress with ETA, downloads, and the small pure helpers the pages render (the only part of
pfcore that may import streamlit)."""
