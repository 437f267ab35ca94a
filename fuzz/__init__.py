"""make fuzz: cross-language fuzzing of the runners with Hypothesis (see __main__.py)."""
