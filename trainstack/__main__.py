from trainstack.cli import main

main()
