"""Forms: workbooks whose inputs are cells (named ranges or label / input layouts), issue 45."""
