from trainstack_components.program import run  # the trainstack Pulumi program (components/program.py)

run(__file__)
