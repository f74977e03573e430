from chunkviz.cli.commands import main

raise SystemExit(main())
