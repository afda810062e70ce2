/** Made-up credentials for the guard tests, built at run time so no literal token sits in the repository. */
import { randomBytes } from "node:crypto"

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

const alnum = (n: number): string => [...randomBytes(n)].map((b) => ALNUM[b % ALNUM.length]).join("")

/** A GitHub personal access token in its documented shape. */
export const githubToken = (): string => `ghp_${alnum(36)}`

/** An OpenSSH private key block with random key material. */
export const privateKeyBlock = (): string => {
  const body = randomBytes(300).toString("base64").match(/.{1,70}/g)!.join("\n")
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----`
}
