import sys

from harness import cli

cli.EXIT_WHEN_DONE = True
sys.exit(cli.main(sys.argv[1:]))
