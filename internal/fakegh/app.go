package fakegh

import (
	"crypto/rsa"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

// App makes the server a GitHub App installed on the repository. The App
// exchanges a JWT, signed with its private key and issued by its id, for
// an installation token (the server's Token) at
// POST /app/installations/{InstallationID}/access_tokens; every other
// request must then carry "token <Token>", as ghinstallation sends it.
// Comments the server creates are the App's ("<Slug>[bot]").
type App struct {
	ID             int64
	Slug           string
	Key            *rsa.PublicKey
	InstallationID int64
}

// InstallationTokens is how many installation tokens were handed out.
func (s *Server) InstallationTokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens
}

func (s *Server) isTokenExchange(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, BasePath+"/app/installations/")
}

// authorization is the Authorization header every request but the token
// exchange must carry.
func (s *Server) authorization() string {
	if s.App != nil {
		return "token " + s.Token
	}
	return "Bearer " + s.Token
}

func (s *Server) createInstallationToken(w http.ResponseWriter, r *http.Request) {
	if s.App == nil {
		s.t.Errorf("fake GitHub: token exchange, but the server is not an App")
		s.fail(w, http.StatusNotFound, "Not Found")
		return
	}
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	var claims jwt.RegisteredClaims
	if ok {
		_, err := jwt.ParseWithClaims(raw, &claims, func(tok *jwt.Token) (any, error) {
			if _, ok := tok.Method.(*jwt.SigningMethodRSA); !ok {
				return nil, jwt.ErrSignatureInvalid
			}
			return s.App.Key, nil
		})
		ok = err == nil
		if err != nil {
			s.t.Errorf("fake GitHub: token exchange: JWT does not verify with the App's key: %v", err)
		}
	} else {
		s.t.Errorf("fake GitHub: token exchange: Authorization = %q, want a Bearer JWT", r.Header.Get("Authorization"))
	}
	if !ok {
		s.fail(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return
	}
	if claims.Issuer != strconv.FormatInt(s.App.ID, 10) {
		s.t.Errorf("fake GitHub: token exchange: JWT issuer %q, want the App id %d", claims.Issuer, s.App.ID)
		s.fail(w, http.StatusUnauthorized, "Integration not found")
		return
	}
	if id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64); id != s.App.InstallationID {
		s.t.Errorf("fake GitHub: token exchange for installation %s, want %d", r.PathValue("id"), s.App.InstallationID)
		s.fail(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	s.tokens++
	s.mu.Unlock()
	s.json(w, http.StatusCreated, map[string]any{
		"token":      s.Token,
		"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
	})
}
