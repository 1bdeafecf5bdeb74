package etcdlocker_test

import (
	"context"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/locker"
)

// Open a store by URL; its backend owns its client.
func Example_open() {
	ctx := context.Background()
	store, err := locker.Open(ctx, "etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379/?prefix=myapp/")
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	m, err := store.Mutex("orders/42")
	if err != nil {
		log.Fatal(err)
	}
	lease, err := m.Lock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Unlock(context.Background())
	// lease.Token() is the key's create revision: pass it to the resource.
}

// Make a store over a client of your own.
func ExampleNew() {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}, DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()
	backend, err := etcdlocker.New(cli, etcdlocker.WithPrefix("myapp/"))
	if err != nil {
		log.Fatal(err)
	}
	store := locker.NewStore(backend)
	defer store.Close() // closes backend, and leaves cli open: it is the caller's
	_, _ = store.Mutex("orders/42")
}
