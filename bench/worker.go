package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// A contention run across two OS processes starts a second process of
// this program in the -contention-worker mode. The protocol on its
// stdin/stdout: the worker prints "ready" once its clients are connected,
// reads "start UNIXNANO", runs, and prints its workerReport as JSON.

// workerProcess is the parent's side of a worker.
type workerProcess struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Scanner
}

// startWorker starts a worker process for spec.
func startWorker(spec contentionSpec) (*workerProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-contention-worker",
		"-w.impl", spec.impl, "-w.addr", strings.Join(spec.addrs, ","), "-w.key", spec.key,
		"-w.goroutines", strconv.Itoa(spec.goroutines),
		"-w.hold", spec.hold.String(), "-w.duration", spec.duration.String(),
		"-hold-nanosleep="+strconv.FormatBool(holdsByNanosleep))
	cmd.SysProcAttr = childAttr()
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting a worker process: %w", err)
	}
	w := &workerProcess{cmd: cmd, in: in, lines: bufio.NewScanner(out)}
	w.lines.Buffer(make([]byte, 1<<20), 64<<20)
	return w, nil
}

func (w *workerProcess) waitReady() error {
	if !w.lines.Scan() || w.lines.Text() != "ready" {
		return fmt.Errorf("worker process not ready (%q, %v)", w.lines.Text(), w.lines.Err())
	}
	return nil
}

func (w *workerProcess) start(at time.Time) error {
	_, err := fmt.Fprintf(w.in, "start %d\n", at.UnixNano())
	return err
}

func (w *workerProcess) report() (workerReport, error) {
	var rep workerReport
	if !w.lines.Scan() {
		return rep, fmt.Errorf("worker process sent no report: %v", w.lines.Err())
	}
	if err := json.Unmarshal(w.lines.Bytes(), &rep); err != nil {
		return rep, fmt.Errorf("worker report: %w", err)
	}
	return rep, nil
}

// kill ends the worker (it has normally exited by now) and reaps it.
func (w *workerProcess) kill() {
	_ = w.in.Close()
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
}

// serveWorker is the -contention-worker mode.
func serveWorker(spec contentionSpec) error {
	ctx := context.Background()
	p, err := prepare(ctx, spec)
	if err != nil {
		return err
	}
	defer p.close()
	fmt.Println("ready")
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil {
		return fmt.Errorf("worker: reading the start: %w", err)
	}
	ns, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(line), "start "), 10, 64)
	if err != nil {
		return fmt.Errorf("worker: bad start line %q", line)
	}
	rep := p.run(time.Unix(0, ns))
	return json.NewEncoder(os.Stdout).Encode(rep)
}
