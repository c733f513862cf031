"""The command line: the typer app and its commands. Nothing else in trainstack imports it."""


def main() -> None:
    from trainstack.cli.app import main as run
    run()
