from tablescan.cli import main

raise SystemExit(main())
