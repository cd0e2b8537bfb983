"""``python -m memorywire``: the memorywire command."""

from memorywire.cli import main

if __name__ == "__main__":
    main()
