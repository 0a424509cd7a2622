module amora/load-tests/ws-scale

go 1.22

require github.com/gorilla/websocket v1.5.3

require amora/load-tests/amoraapi v0.0.0

replace amora/load-tests/amoraapi => ../amoraapi
