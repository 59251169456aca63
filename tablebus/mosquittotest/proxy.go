package mosquittotest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a broker, and can cut them all at once: a network cut
// between the table and the broker, without the broker noticing anything but closed sockets.
type Proxy struct {
	Addr   string
	target string
	ln     net.Listener

	mu    sync.Mutex
	conns map[net.Conn]bool
	drops int
}

// NewProxy starts a proxy to target on a free loopback port, closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.DropAll() })
	return p
}

// URL returns tcp://addr.
func (p *Proxy) URL() string { return "tcp://" + p.Addr }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.pipe(c)
	}
}

func (p *Proxy) pipe(c net.Conn) {
	u, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[u] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) { io.Copy(dst, src); dst.Close(); src.Close(); done <- struct{}{} }
	go cp(u, c)
	go cp(c, u)
	<-done
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, u)
	p.mu.Unlock()
}

// DropAll closes every connection through the proxy, both ways.
func (p *Proxy) DropAll() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for c := range p.conns {
		c.Close()
		n++
	}
	p.drops += n / 2
	return n / 2
}
