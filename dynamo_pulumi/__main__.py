import sys

from dynamo_pulumi.cli import main

sys.exit(main())
