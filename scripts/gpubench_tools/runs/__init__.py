"""Running gpubench as separate processes: recording (record.py) and the CI gate (gate.py)."""
