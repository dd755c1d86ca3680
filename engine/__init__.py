"""Pure rules: card model, rule profiles, judging. No I/O beyond reading profile data, no clock."""
