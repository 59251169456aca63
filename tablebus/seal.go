package tablebus

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
)

// The signed wire form (the package comment documents it byte by byte). A sealed payload is the
// message's own compact JSON object with its closing brace replaced by a fixed-length trailer:
//
//	chained (events):         ,"prev":"<64 hex>","kid":"<16 hex>","sig":"<86 base64url>"}
//	unchained (status, cmd):  ,"kid":"<16 hex>","sig":"<86 base64url>"}
//
// The signature covers a domain string, the topic, a zero byte and every byte of the payload
// before the signature's own 86 characters.
const (
	// KeyIDLen is the length of a key id: 16 lowercase hex digits.
	KeyIDLen = 16
	// sigLen is the length of an Ed25519 signature in unpadded base64url.
	sigLen = 86
	// hashLen is the length of a SHA-256 hash in lowercase hex.
	hashLen = 64

	prevField = `,"prev":"`
	kidField  = `","kid":"`
	kidFirst  = `,"kid":"`
	sigField  = `","sig":"`
	closing   = `"}`

	// ChainedTrailerLen and TrailerLen are the bytes a seal adds (less the body's closing brace).
	ChainedTrailerLen = len(prevField) + hashLen + len(kidField) + KeyIDLen + len(sigField) + sigLen + len(closing)
	TrailerLen        = len(kidFirst) + KeyIDLen + len(sigField) + sigLen + len(closing)
)

// Domain separates what a signature is for, so that a signed status can never pass for an
// event, nor a command for either.
type Domain string

// The signature domains of version 1. Each is followed by a zero byte in the signed message.
const (
	DomainEvent   Domain = "sabot/v1 event"
	DomainStatus  Domain = "sabot/v1 status"
	DomainCommand Domain = "sabot/v1 command"
	DomainKeyring Domain = "sabot/v1 keyring"
)

// Errors of opening a sealed payload. Callers branch on them (errors.Is) to name the alarm.
var (
	ErrUnsigned     = errors.New("tablebus: unsigned payload (no signature trailer)")
	ErrBadSignature = errors.New("tablebus: bad signature")
	ErrUnknownKey   = errors.New("tablebus: unknown key id")
	ErrRevokedKey   = errors.New("tablebus: revoked key")
	ErrKeyNotValid  = errors.New("tablebus: key not valid for this use")
)

// Hash is the SHA-256 of a whole payload: what the next event's "prev" names.
type Hash [32]byte

// HashOf returns the hash of a payload.
func HashOf(payload []byte) Hash { return sha256.Sum256(payload) }

// String returns the hash in lowercase hex.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// KeyIDOf returns the key id of a public key: the first 8 bytes of its SHA-256, in hex.
func KeyIDOf(pub ed25519.PublicKey) string {
	s := sha256.Sum256(pub)
	return hex.EncodeToString(s[:8])
}

// Signer signs with one Ed25519 key.
type Signer struct {
	kid  string
	priv ed25519.PrivateKey
}

// NewSigner returns a signer for priv.
func NewSigner(priv ed25519.PrivateKey) *Signer {
	return &Signer{kid: KeyIDOf(priv.Public().(ed25519.PublicKey)), priv: priv}
}

// KeyID returns the signer's key id.
func (s *Signer) KeyID() string { return s.kid }

// Public returns the signer's public key.
func (s *Signer) Public() ed25519.PublicKey { return s.priv.Public().(ed25519.PublicKey) }

// String names the signer by its key id (never the key).
func (s *Signer) String() string { return "ed25519 key " + s.kid }

func checkBody(body []byte) error {
	if len(body) < 3 || body[0] != '{' || body[len(body)-1] != '}' {
		return errors.New("tablebus: sealing: the body is not a non-empty JSON object")
	}
	return nil
}

// message builds the signed message: domain, 0x00, topic, 0x00, span.
func message(d Domain, topic string, span []byte) []byte {
	m := make([]byte, 0, len(d)+len(topic)+2+len(span))
	m = append(m, d...)
	m = append(m, 0)
	m = append(m, topic...)
	m = append(m, 0)
	return append(m, span...)
}

// SealChained seals an event body for topic, naming the previous payload's hash. body is the
// event's compact JSON object (Event.Marshal) without prev, kid or sig.
func (s *Signer) SealChained(d Domain, topic string, prev Hash, body []byte) ([]byte, error) {
	if err := checkBody(body); err != nil {
		return nil, err
	}
	p := make([]byte, 0, len(body)-1+ChainedTrailerLen)
	p = append(p, body[:len(body)-1]...)
	p = append(p, prevField...)
	p = hex.AppendEncode(p, prev[:])
	p = append(p, kidField...)
	p = append(p, s.kid...)
	p = append(p, sigField...)
	return s.finish(d, topic, p), nil
}

// Seal seals a body without a chain (status, commands, keyrings).
func (s *Signer) Seal(d Domain, topic string, body []byte) ([]byte, error) {
	if err := checkBody(body); err != nil {
		return nil, err
	}
	p := make([]byte, 0, len(body)-1+TrailerLen)
	p = append(p, body[:len(body)-1]...)
	p = append(p, kidFirst...)
	p = append(p, s.kid...)
	p = append(p, sigField...)
	return s.finish(d, topic, p), nil
}

func (s *Signer) finish(d Domain, topic string, span []byte) []byte {
	sig := ed25519.Sign(s.priv, message(d, topic, span))
	p := base64.RawURLEncoding.AppendEncode(span, sig)
	return append(p, closing...)
}

// Sealed is what the trailer of a sealed payload says, before the signature is checked.
type Sealed struct {
	KeyID   string
	Prev    Hash // chained payloads only
	Chained bool
	span    []byte
	sig     []byte
}

// ParseSeal reads the trailer of a sealed payload; chained says which layout to expect. It
// checks the layout only: Verify checks the signature.
func ParseSeal(payload []byte, chained bool) (Sealed, error) {
	n := TrailerLen
	if chained {
		n = ChainedTrailerLen
	}
	var s Sealed
	if len(payload) < n+2 || payload[0] != '{' {
		return s, ErrUnsigned
	}
	t := payload[len(payload)-n:]
	if chained {
		if !bytes.HasPrefix(t, []byte(prevField)) {
			return s, ErrUnsigned
		}
		t = t[len(prevField):]
		if _, err := hex.Decode(s.Prev[:], t[:hashLen]); err != nil || !lowerHex(t[:hashLen]) {
			return s, fmt.Errorf("%w: prev is not 64 lowercase hex digits", ErrUnsigned)
		}
		t = t[hashLen:]
		if !bytes.HasPrefix(t, []byte(kidField)) {
			return s, ErrUnsigned
		}
		t = t[len(kidField):]
	} else {
		if !bytes.HasPrefix(t, []byte(kidFirst)) {
			return s, ErrUnsigned
		}
		t = t[len(kidFirst):]
	}
	kid := t[:KeyIDLen]
	if !lowerHex(kid) {
		return s, fmt.Errorf("%w: kid is not 16 lowercase hex digits", ErrUnsigned)
	}
	t = t[KeyIDLen:]
	if !bytes.HasPrefix(t, []byte(sigField)) || !bytes.HasSuffix(t, []byte(closing)) {
		return s, ErrUnsigned
	}
	// Strict: the last character's 4 unused bits must be zero, or 16 different payloads would
	// carry one signature (and a consumer could be handed an altered copy that verifies).
	enc := t[len(sigField) : len(sigField)+sigLen]
	sig, err := base64.RawURLEncoding.Strict().DecodeString(string(enc))
	if err != nil || len(sig) != ed25519.SignatureSize || base64.RawURLEncoding.EncodeToString(sig) != string(enc) {
		return s, fmt.Errorf("%w: the signature is not 86 canonical base64url characters", ErrUnsigned)
	}
	s.KeyID, s.Chained, s.sig = string(kid), chained, sig
	s.span = payload[:len(payload)-sigLen-len(closing)]
	return s, nil
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Verify checks the signature with pub for domain d and topic.
func (s Sealed) Verify(d Domain, topic string, pub ed25519.PublicKey) error {
	if len(pub) != ed25519.PublicKeySize || KeyIDOf(pub) != s.KeyID {
		return fmt.Errorf("%w: key %s does not match the payload's", ErrBadSignature, KeyIDOf(pub))
	}
	if !ed25519.Verify(pub, message(d, topic, s.span), s.sig) {
		return fmt.Errorf("%w (key %s, topic %s)", ErrBadSignature, s.KeyID, topic)
	}
	return nil
}
