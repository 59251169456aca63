package access

import (
	"bufio"
	"bytes"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// mosquitto 2's password hash: "$7$" iterations "$" base64(salt) "$" base64(PBKDF2-SHA512),
// as mosquitto_passwd writes it (research/mqtt.md §3.1: the file starts "$7$101$").
const (
	pbkdf2Iterations = 101
	saltLen          = 12
	hashLen          = 64
)

// HashPassword returns pw hashed as mosquitto_passwd does, for a password_file line
// "name:hash".
func HashPassword(pw string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("access: %w", err)
	}
	return hashWith(pw, salt, pbkdf2Iterations)
}

func hashWith(pw string, salt []byte, iter int) (string, error) {
	h, err := pbkdf2.Key(sha512.New, pw, salt, iter, hashLen)
	if err != nil {
		return "", fmt.Errorf("access: %w", err)
	}
	return "$7$" + strconv.Itoa(iter) + "$" + base64.StdEncoding.EncodeToString(salt) + "$" + base64.StdEncoding.EncodeToString(h), nil
}

// CheckPassword reports whether pw matches a mosquitto "$7$" hash.
func CheckPassword(hash, pw string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 5 || parts[0] != "" || parts[1] != "7" {
		return false
	}
	iter, err := strconv.Atoi(parts[2])
	if err != nil || iter < 1 || iter > 1_000_000 {
		return false
	}
	salt, err := base64.StdEncoding.DecodeString(parts[3])
	if err != nil {
		return false
	}
	want, err := hashWith(pw, salt, iter)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(hash)) == 1
}

// ParsePasswd reads a mosquitto password_file: "name:hash" lines, '#' comments.
func ParsePasswd(b []byte) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, hash, ok := strings.Cut(line, ":")
		if !ok || name == "" || !strings.HasPrefix(hash, "$7$") {
			return nil, fmt.Errorf("access: password file line %d: want name:$7$…", n)
		}
		out[name] = hash
	}
	return out, sc.Err()
}
