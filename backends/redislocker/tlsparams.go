package redislocker

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/distlock/distlock/driver"
)

// tlsFiles are the PEM files a rediss URL names, with the same parameters
// as etcdlocker's etcds URLs: ca_file (the CA that signs the servers'
// certificates; the system's roots otherwise), cert_file and key_file (a
// client certificate and its key, both or neither).
type tlsFiles struct {
	ca, cert, key string
}

// takeTLSParams removes ca_file, cert_file and key_file from q. They need a
// rediss scheme.
func takeTLSParams(u *url.URL, q url.Values) (tlsFiles, error) {
	var f tlsFiles
	for _, p := range []struct {
		name string
		to   *string
	}{{"ca_file", &f.ca}, {"cert_file", &f.cert}, {"key_file", &f.key}} {
		if !q.Has(p.name) {
			continue
		}
		if !strings.HasPrefix(u.Scheme, "rediss") {
			return tlsFiles{}, fmt.Errorf("%w: parameter %q needs a rediss scheme (TLS)", driver.ErrInvalid, p.name)
		}
		if len(q[p.name]) != 1 {
			return tlsFiles{}, fmt.Errorf("%w: parameter %q given %d times", driver.ErrInvalid, p.name, len(q[p.name]))
		}
		*p.to = q.Get(p.name)
		q.Del(p.name)
	}
	if (f.cert == "") != (f.key == "") {
		return tlsFiles{}, fmt.Errorf("%w: cert_file and key_file go together", driver.ErrInvalid)
	}
	return f, nil
}

// apply loads the files into tc, the TLS configuration go-redis parsed from
// the URL (nil without TLS, and then there are no files).
func (f tlsFiles) apply(tc *tls.Config) error {
	if f == (tlsFiles{}) {
		return nil
	}
	if tc == nil {
		return errors.New("TLS files without TLS")
	}
	if f.ca != "" {
		pem, err := os.ReadFile(f.ca)
		if err != nil {
			return fmt.Errorf("ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("ca_file %q holds no PEM certificate", f.ca)
		}
		tc.RootCAs = pool
	}
	if f.cert != "" {
		cert, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return fmt.Errorf("client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return nil
}
