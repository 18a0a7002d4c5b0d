module github.com/culprit-dev/culprit

go 1.26.0

require (
	github.com/aclements/go-z3 v0.0.0-20220809013456-4675d5f90ca5
	github.com/bradleyfalzon/ghinstallation/v2 v2.10.0
	github.com/golang-jwt/jwt/v4 v4.5.0
	github.com/google/go-cmp v0.7.0
	github.com/google/go-github/v60 v60.0.0
	github.com/sergi/go-diff v1.4.0
	github.com/sethvargo/go-githubactions v1.3.2
	golang.org/x/tools v0.52.0
)

require (
	github.com/google/go-querystring v1.1.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
