package k8scmd

import "testing"

// A file holds secrets when a line reads as a secret header or a URL with a password, or is a JSON
// object naming a secret header or holding such a URL at any depth (vegeta's JSON targets).
func TestHoldsSecrets(t *testing.T) {
	for text, want := range map[string]bool{
		"GET http://127.0.0.1:8080/\nAuthorization: Bearer X\n":                                   true,
		"GET http://u:pw@127.0.0.1:8080/\n":                                                       true,
		`{"method":"GET","url":"http://127.0.0.1:8080/","header":{"Authorization":["Bearer X"]}}`: true,
		`{"method":"GET","url":"http://127.0.0.1:8080/?api_key=X"}`:                               true,
		`{"method":"GET","url":"http://127.0.0.1:8080/","header":{"Accept":["*/*"]}}`:             false,
		"GET http://127.0.0.1:8080/\nAccept: */*\n":                                               false,
		"id,name\n1,a\n": false,
	} {
		if got := holdsSecrets([]byte(text)); got != want {
			t.Errorf("holdsSecrets(%q) = %v; want %v", text, got, want)
		}
	}
}
