package plan

import (
	"testing"

	"github.com/rpcbench/rpcbench/transport"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"http://u:p@h:1/a?b=1", "http://REDACTED@h:1/a?b=1"},
		{"http://h/a?api_key=k&x=1&Token=t#f", "http://h/a?api_key=REDACTED&x=1&Token=REDACTED#f"},
		{"http://h/a?id={{randInt 1 9}}&secret=s", "http://h/a?id={{randInt 1 9}}&secret=REDACTED"},
		{"http://h/a@b", "http://h/a@b"}, // an @ in the path is no user-info
		{"http://h/plain", "http://h/plain"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	h := []transport.Header{{Name: "Content-Type", Value: "a"}, {Name: "Cookie", Value: "c"}, {Name: "X-Auth", Value: "x"}}
	got := RedactHeaders(h)
	if got[0].Value != "a" || got[1].Value != Redacted || got[2].Value != Redacted || h[1].Value != "c" {
		t.Errorf("RedactHeaders: %v (input now %v); want Cookie and X-Auth redacted, the input untouched", got, h)
	}
	if a := RedactArg("Authorization: Bearer x"); a != "Authorization: "+Redacted {
		t.Errorf("RedactArg = %q", a)
	}
}

// A secret header's value is secret whole, a URL in it included. A flag given as -X=VALUE or
// --flag=VALUE has VALUE redacted as the flag's own argument would be, whole when the flag's name
// is a secret's; a boolean value is no secret.
func TestRedactArgSecretHeaderHoldingAURL(t *testing.T) {
	for arg, want := range map[string]string{

		"--header=Authorization: Bearer LEAKX":                   "--header=Authorization: REDACTED",
		"-H=X-Api-Key:K3":                                        "-H=X-Api-Key: REDACTED",
		"--token=LEAKT":                                          "--token=REDACTED",
		"--upstream=http://u:PW@127.0.0.1:1/":                    "--upstream=http://REDACTED@127.0.0.1:1/",
		"--show-secrets=false":                                   "--show-secrets=false",
		"--header=Content-Type: application/json":                "--header=Content-Type: application/json",
		"--rate=10":                                              "--rate=10",
		"Cookie: session=SEKRET; next=https://shop.example/cart": "Cookie: REDACTED",
		"Authorization: Bearer https://issuer.example/SEKRET":    "Authorization: REDACTED",
		"Referer: https://shop.example/cart":                     "Referer: https://shop.example/cart",
		"http://u:SEKRET@127.0.0.1:8080/":                        "http://REDACTED@127.0.0.1:8080/",
	} {
		if got := RedactArg(arg); got != want {
			t.Errorf("RedactArg(%q) = %q; want %q", arg, got, want)
		}
	}
}

// A command is written with each URL's secrets REDACTED, in an argument vector or word by word in
// a shell command line (two URLs, the second with the password), and as it is when shown.
func TestShownCommand(t *testing.T) {
	t.Parallel()
	sh := []string{"relay --upstream http://127.0.0.1:1/ --upstream 'http://alice:pw@127.0.0.1:2/?api_key=k&x=1' --max-idle 4"}
	argv := []string{"relay", "-H", "Authorization: Bearer tok", "--upstream=http://alice:pw@127.0.0.1:2/"}
	for _, c := range []struct {
		cmd         []string
		shell, show bool
		want        string
	}{
		{sh, true, false, "relay --upstream http://127.0.0.1:1/ --upstream 'http://REDACTED@127.0.0.1:2/?api_key=REDACTED&x=1' --max-idle 4"},
		{sh, true, true, sh[0]},
		{argv, false, false, "relay -H Authorization: REDACTED --upstream=http://REDACTED@127.0.0.1:2/"},
		{argv, false, true, "relay -H Authorization: Bearer tok --upstream=http://alice:pw@127.0.0.1:2/"},
	} {
		if got := ShownCommand(c.cmd, c.shell, c.show); got != c.want {
			t.Errorf("%q shell %v show %v: %s; want %s", c.cmd, c.shell, c.show, got, c.want)
		}
	}
}

// A shell command line is split into words as the shell splits them: a quoted secret header is
// redacted whole up to its closing quote, in single or double quotes, and the quotes are kept.
func TestShownCommandShellQuotes(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`curl -H 'Authorization: Bearer SECRETTOK1' http://127.0.0.1:1/`: `curl -H 'Authorization: REDACTED' http://127.0.0.1:1/`,
		`curl -H "Authorization: Bearer SECRETTOK2" -s`:                  `curl -H "Authorization: REDACTED" -s`,
		`curl -H 'X-Api-Key:K3' -s`:                                      `curl -H 'X-Api-Key: REDACTED' -s`,
		`curl -H X-Api-Key:K4 -s`:                                        `curl -H 'X-Api-Key: REDACTED' -s`,
		`curl --header='Cookie: s=K5; a=b' -s`:                           `curl --header='Cookie: REDACTED' -s`,
		`curl -H 'Content-Type: text/plain'  'http://u:K6@127.0.0.1:1/'`: `curl -H 'Content-Type: text/plain'  'http://REDACTED@127.0.0.1:1/'`,
		`echo "it's fine" && sleep 1`:                                    `echo "it's fine" && sleep 1`,
	} {
		if got := ShownCommand([]string{line}, true, false); got != want {
			t.Errorf("ShownCommand(%q) = %q; want %q", line, got, want)
		}
	}
}
