from chunkviz.cli import main

raise SystemExit(main())
