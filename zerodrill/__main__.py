from zerodrill.cli import main

main()
