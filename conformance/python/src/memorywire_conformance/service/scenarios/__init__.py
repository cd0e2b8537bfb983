"""The scenarios of the service suite, one module per area; importing this
package registers them, in the order of the report."""

from memorywire_conformance.service.scenarios import (  # noqa: F401
    approval,
    branches,
    capabilities,
    credentials,
    erase,
    fairness,
    history,
    import_policies,
    integrity,
    lifecycle,
    put,
    reflection,
    search,
    security,
    tenancy,
    transfer,
    update_delete,
    watch,
)
