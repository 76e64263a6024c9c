from autofill.cli import main

main()
