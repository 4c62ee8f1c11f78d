"""The pieces of the `folio` command line: arguments and help, errors and exit codes, progress, summaries."""
