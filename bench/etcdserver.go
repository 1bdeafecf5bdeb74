package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// The etcd server runs embedded in a second process of this program (the
// -serve-etcd mode), so that its CPU time and allocations are not counted
// against the clients measured here.

// etcdServer is the child process serving etcd.
type etcdServer struct {
	endpoint string
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	done     chan struct{}
}

// startEtcd starts the child and waits until it reports its client URL.
func startEtcd() (*etcdServer, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-serve-etcd")
	cmd.SysProcAttr = childAttr()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the etcd child: %w", err)
	}
	s := &etcdServer{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	select {
	case l, ok := <-line:
		if ep, found := strings.CutPrefix(l, "ready "); ok && found {
			s.endpoint = ep
			return s, nil
		}
		s.stop()
		return nil, fmt.Errorf("etcd child said %q", l)
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, fmt.Errorf("etcd child not ready within a minute")
	}
}

// stop closes the child's stdin, which makes it stop etcd and exit, and
// kills it if it has not exited within ten seconds.
func (s *etcdServer) stop() {
	_ = s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// serveEtcd is the -serve-etcd mode: one embedded etcd member on free ports
// of 127.0.0.1, data in a temporary directory, no fsync, logs off. It
// prints "ready URL" and serves until its stdin closes.
func serveEtcd() error {
	dir, err := os.MkdirTemp("", "distlock-bench-etcd-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cport, err := freePort()
	if err != nil {
		return err
	}
	pport, err := freePort()
	if err != nil {
		return err
	}
	curl := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", cport)}
	purl := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", pport)}
	cfg := embed.NewConfig()
	cfg.Name = "bench"
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{curl}
	cfg.AdvertiseClientUrls = []url.URL{curl}
	cfg.ListenPeerUrls = []url.URL{purl}
	cfg.AdvertisePeerUrls = []url.URL{purl}
	cfg.InitialCluster = cfg.Name + "=" + purl.String()
	cfg.UnsafeNoFsync = true
	cfg.EnableGRPCGateway = false
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		return fmt.Errorf("etcd: %w", err)
	case <-time.After(time.Minute):
		return fmt.Errorf("etcd not ready within a minute")
	}
	fmt.Printf("ready %s\n", curl.String())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	select {
	case <-ctx.Done():
		return nil
	case err := <-e.Err():
		return fmt.Errorf("etcd: %w", err)
	}
}
