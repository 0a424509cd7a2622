module amora/load-tests/amoraapi

go 1.22
