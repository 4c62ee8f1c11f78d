"""The validation gate: every page result checked with Great Expectations before it is stored."""
