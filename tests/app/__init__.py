"""App tests: pages through streamlit's AppTest, the served app and its sessions."""
