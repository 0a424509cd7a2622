// centrifuge-peer: the socket peer of issue 19, a minimal server on the centrifuge library
// (the engine of Centrifugo) doing what Amora's socket does in the benchmark: a signed-in
// user's WebSocket receives the user's events without subscribing to anything.
//
//	centrifuge-peer -listen 127.0.0.1:PORT [-broker memory|redis -redis 127.0.0.1:6379]
//
// The library's own WebSocket handler and JSON protocol serve /connection/websocket. A
// client sends `{"id":1,"connect":{"data":{"user":"NAME"}}}`; OnConnecting takes the user
// from that request (a benchmark has no tokens to check) and subscribes the connection,
// server-side, to the user's personal channel `#NAME`, the way Amora delivers to every
// socket of a user.
//
// POST /fanout {"users":[…],"rate":N,"seconds":S} is the publisher (publisher.go): N
// events a second spread round-robin over the users' channels for S seconds, each
// carrying its publish time in µs, answered when done. ws-scale calls it once its sockets
// are all open. With the Redis broker two processes form two nodes: a publish on either
// reaches the sockets of both.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/centrifugal/centrifuge"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8000", "address to serve on")
	broker := flag.String("broker", "memory", "memory (one node) or redis (several nodes)")
	redisAddress := flag.String("redis", "127.0.0.1:6379", "the Redis server of -broker redis")
	flag.Parse()

	node, err := centrifuge.New(centrifuge.Config{LogLevel: centrifuge.LogLevelError, LogHandler: func(e centrifuge.LogEntry) {
		log.Printf("centrifuge: %s %v", e.Message, e.Fields)
	}})
	if err != nil {
		log.Fatal(err)
	}
	node.OnConnecting(connecting)
	// Clients publish and subscribe nothing themselves: the handlers stay unset, so the
	// library refuses such commands.
	node.OnConnect(func(*centrifuge.Client) {})
	switch *broker {
	case "memory": // the library's default broker
	case "redis":
		useRedis(node, *redisAddress)
	default:
		log.Fatalf("-broker must be memory or redis, not %q", *broker)
	}
	if err := node.Run(); err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.Handle("/connection/websocket", centrifuge.NewWebsocketHandler(node, centrifuge.WebsocketConfig{}))
	mux.HandleFunc("/fanout", func(w http.ResponseWriter, r *http.Request) { serveFanout(node, w, r) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	server := &http.Server{Addr: *listen, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(ctx)
		_ = node.Shutdown(ctx)
	}()
	log.Printf("centrifuge-peer on %s, %s broker", *listen, *broker)
	if err := server.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}

// connecting authenticates a connection as the user named in its connect request and
// subscribes it to that user's channel.
func connecting(_ context.Context, e centrifuge.ConnectEvent) (centrifuge.ConnectReply, error) {
	var request struct {
		User string `json:"user"`
	}
	if err := json.Unmarshal(e.Data, &request); err != nil || request.User == "" {
		return centrifuge.ConnectReply{}, centrifuge.DisconnectBadRequest
	}
	return centrifuge.ConnectReply{
		Credentials:   &centrifuge.Credentials{UserID: request.User},
		Subscriptions: map[string]centrifuge.SubscribeOptions{personalChannel(request.User): {}},
	}, nil
}

func personalChannel(user string) string { return "#" + user }

// useRedis makes the node one of several sharing a Redis: publications go through Redis
// pub/sub, and every node delivers to its own subscribers.
func useRedis(node *centrifuge.Node, address string) {
	shard, err := centrifuge.NewRedisShard(node, centrifuge.RedisShardConfig{Address: address})
	if err != nil {
		log.Fatalf("redis: %v", err)
	}
	broker, err := centrifuge.NewRedisBroker(node, centrifuge.RedisBrokerConfig{Shards: []*centrifuge.RedisShard{shard}})
	if err != nil {
		log.Fatalf("redis broker: %v", err)
	}
	node.SetBroker(broker)
}
