"""Pages as they are read and stored: what one page may hold and take (its budgets), and engine results turned into
rows, one batch in one transaction."""
