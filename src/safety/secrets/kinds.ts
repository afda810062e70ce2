/**
 * What the credential detector reports: the kinds of secret it knows (its own rules' and the provider table's), the
 * finding (a kind and where it starts, never the value), and how each kind is named in messages. Pure data; the
 * rules that produce these kinds live beside it.
 */
import { PROVIDER_RULES, type ProviderKind } from "./providers.ts"

type CoreKind =
  | "rsa-private-key"
  | "ec-private-key"
  | "dsa-private-key"
  | "openssh-private-key"
  | "pkcs8-private-key"
  | "encrypted-private-key"
  | "pgp-private-key"
  | "putty-private-key"
  | "ssh2-private-key"
  | "openvpn-static-key"
  | "private-key-jwk"
  | "aws-access-key-id"
  | "aws-secret-access-key"
  | "gcp-service-account-key"
  | "azure-storage-key"
  | "azure-sas-token"
  | "github-token"
  | "gitlab-token"
  | "slack-token"
  | "slack-webhook"
  | "stripe-live-key"
  | "openai-api-key"
  | "anthropic-api-key"
  | "google-api-key"
  | "npm-token"
  | "pypi-token"
  | "huggingface-token"
  | "sendgrid-api-key"
  | "jwt"
  | "url-password"
  | "authorization-header"
  | "docker-registry-auth"
  | "netrc-credential"
  | "pgpass-credential"
  | "user-password-pair"
  | "password-flag"
  | "secret-in-text"
  | "secret-assignment"

export type SecretKind = CoreKind | ProviderKind

export interface SecretFinding {
  readonly kind: SecretKind
  /** 1-based line of the first character of the finding. */
  readonly line: number
  /** 1-based column (UTF-16 units) in that line. */
  readonly column: number
}

/** How a kind is named in messages, after "looks like". */
export const secretKindLabel: Readonly<Record<SecretKind, string>> = {
  "rsa-private-key": "an RSA private key",
  "ec-private-key": "an EC private key",
  "dsa-private-key": "a DSA private key",
  "openssh-private-key": "an OpenSSH private key",
  "pkcs8-private-key": "a PKCS#8 private key",
  "encrypted-private-key": "an encrypted private key",
  "pgp-private-key": "a PGP private key",
  "putty-private-key": "a PuTTY private key",
  "ssh2-private-key": "an SSH2 private key",
  "openvpn-static-key": "an OpenVPN static key",
  "private-key-jwk": "a private JSON Web Key",
  "aws-access-key-id": "an AWS access key ID",
  "aws-secret-access-key": "an AWS secret access key",
  "gcp-service-account-key": "a Google Cloud service-account key",
  "azure-storage-key": "an Azure connection-string key",
  "azure-sas-token": "an Azure SAS token",
  "github-token": "a GitHub token",
  "gitlab-token": "a GitLab token",
  "slack-token": "a Slack token",
  "slack-webhook": "a Slack webhook URL",
  "stripe-live-key": "a Stripe live key",
  "openai-api-key": "an OpenAI API key",
  "anthropic-api-key": "an Anthropic API key",
  "google-api-key": "a Google API key",
  "npm-token": "an npm token",
  "pypi-token": "a PyPI token",
  "huggingface-token": "a Hugging Face token",
  "sendgrid-api-key": "a SendGrid API key",
  jwt: "a JSON Web Token",
  "url-password": "a password or token in a URL",
  "authorization-header": "an Authorization header with credentials",
  "docker-registry-auth": "a Docker registry credential",
  "netrc-credential": "a .netrc password",
  "pgpass-credential": "a .pgpass password",
  "user-password-pair": "a user:password pair on a command line",
  "password-flag": "a password on a command line",
  "secret-in-text": "a password or token written out in the text",
  "secret-assignment": "a secret value in a password, token or key setting",
  ...Object.fromEntries(PROVIDER_RULES.map((r) => [r.kind, r.label]))
} as Readonly<Record<SecretKind, string>>
