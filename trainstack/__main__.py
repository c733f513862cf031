from trainstack.cli.app import main

main()
