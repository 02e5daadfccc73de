"""keras_rda.utils: helpers of the library that are also useful outside it.

- `validation`: the argument checks, each raising a `ValueError` in
  Keras's wording that names the argument and the value (the lab and
  user code check their own arguments with them).
- `initializers`: `independent`, a copy of an initializer that draws values
  of its own (for one initializer argument that serves several weights).

`arguments` (passing a constructor's named arguments on) and
`keras_compat` (the Keras-internal names the package uses) are the
library's own plumbing, not exported.
"""

from keras_rda.utils import initializers
from keras_rda.utils import validation

__all__ = ["initializers", "validation"]
