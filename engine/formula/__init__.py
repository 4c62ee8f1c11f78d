"""Display-formula recognition: formula images to LaTeX, with a pluggable model."""
