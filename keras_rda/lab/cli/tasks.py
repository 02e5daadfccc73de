"""`keras-rda tasks`: the registered tasks, each with its paper."""

NAME = "tasks"
HELP = "list the registered tasks"
PARENTS = ()


def configure(parser):
    """`tasks` has no options; returns its `run(args)`."""
    return run


def run(args):
    from keras_rda.lab.tasks import get_task_class
    from keras_rda.lab.tasks import task_names

    for name in task_names():
        cls = get_task_class(name)
        print(f"{name:24s} {cls.description}  [{cls.paper}]")
    return 0
