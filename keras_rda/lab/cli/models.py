"""`keras-rda models`: the model zoo, with each entry's optimiser settings."""

NAME = "models"
HELP = "list the registered models"
PARENTS = ()


def configure(parser):
    """`models` has no options; returns its `run(args)`."""
    return run


def run(args):
    from keras_rda.lab.zoo.registry import get_model_spec
    from keras_rda.lab.zoo.registry import model_names

    for name in model_names():
        spec = get_model_spec(name)
        clip = (
            "none"
            if spec.clipvalue is None
            else f"[-{spec.clipvalue}, {spec.clipvalue}]"
        )
        print(
            f"{name:20s} {spec.description}  "
            f"[lr {spec.learning_rate:g}, clip {clip}; {spec.paper}]"
        )
    return 0
