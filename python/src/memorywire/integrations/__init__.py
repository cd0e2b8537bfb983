"""memorywire as the memory backend of agent frameworks.

Each module implements one framework's own storage interface on a memorywire
service, through that framework's adapter forms (:mod:`memorywire.adapters`),
so that what one framework writes is memorywire records that any other can
read. Importing this package imports no framework; each module imports its
own, and names the extra to install when it is missing.
"""
