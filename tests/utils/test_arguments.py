"""`keras_rda.utils.arguments`: a constructor's named arguments, passed on."""

from keras_rda.utils.arguments import constructor_arguments


class _Base:
    def __init__(self, **kwargs):
        self.received = kwargs


class _Child(_Base):
    def __init__(self, units, rate=0.5, *, kept=None, **kwargs):
        rate = 2 * rate  # a resolved argument is passed on resolved
        arguments = constructor_arguments(locals(), ["kept"])
        super().__init__(**arguments, **kwargs)  # `super()` adds `__class__`
        self.kept = kept


def test_named_arguments_in_signature_order_without_self_kwargs_and_excluded():
    child = _Child(3, kept="here", extra=1)
    assert child.received == {"units": 3, "rate": 1.0, "extra": 1}
    assert list(child.received) == ["units", "rate", "extra"]
    assert child.kept == "here"


def test_defaults_are_passed_on():
    assert _Child(4).received == {"units": 4, "rate": 1.0}
