"""Where PDFs come from: listing a folder or an S3 prefix, reading a file safely, streaming an object to the spool,
and why a file could not be read."""
