"""Tools an agent can call, and the checks every tool shares (paths, URLs, scrubbing)."""
