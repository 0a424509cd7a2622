module amora/load-tests/ws-scale

go 1.22

require github.com/gorilla/websocket v1.5.3
