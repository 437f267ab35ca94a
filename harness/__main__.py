import sys

from harness import cli, verify

verify.EXIT_WHEN_DONE = True
sys.exit(cli.main(sys.argv[1:]))
