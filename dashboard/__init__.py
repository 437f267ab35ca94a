"""Static reports from a harness run: dashboard.html (one self-contained file), summary.md, badges/<runner>.json."""
