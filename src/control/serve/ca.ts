/**
 * The local certificate authority of `simnet serve`'s proxy: made on first use (RSA 2048 by
 * Node's crypto, the certificate by `node-forge`), kept in a per-user directory (`--ca-dir`, else
 * `SIMNET_CA_DIR`, else `$XDG_CONFIG_HOME/simnet/ca` or `~/.config/simnet/ca`) with the key
 * readable by its owner only, never shipped in the package. A `CONNECT host:443` is answered
 * with a certificate for that host, signed on the fly and kept for the life of the server.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import * as path from "node:path"
import * as tls from "node:tls"
import type * as Forge from "node-forge"
import { createRequire } from "node:module"

/** node-forge, loaded with the first certificate rather than with the server. */
let loaded: typeof Forge | undefined
const forge = (): typeof Forge => (loaded ??= createRequire(import.meta.url)("node-forge") as typeof Forge)

/** Where the CA lives: the flag, the environment, else the user's config directory. */
export const caDirectory = (flag?: string | undefined): string =>
  flag ?? process.env["SIMNET_CA_DIR"] ?? path.join(process.env["XDG_CONFIG_HOME"] ?? path.join(homedir(), ".config"), "simnet", "ca")

/** The files of a CA directory. */
export const caFiles = (dir: string) => ({ cert: path.join(dir, "simnet-ca.pem"), key: path.join(dir, "simnet-ca-key.pem") })

const rsaKeys = () => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  return {
    privatePem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString()
  }
}

const serial = () => `01${randomBytes(15).toString("hex")}`

/** Writes a file whole or not at all (a temporary file renamed), with `mode`. */
const writeAtomically = (file: string, text: string, mode: number) => {
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, text, { mode })
  chmodSync(temporary, mode)
  renameSync(temporary, file)
}

/** A CA: its certificate (PEM, what clients trust) and what signs a host's certificate. */
export interface CertificateAuthority {
  readonly certFile: string
  readonly certPem: string
  /** A TLS context for `host` (a name or an IP address), made once per host. */
  readonly contextFor: (host: string) => tls.SecureContext
}

/**
 * The CA in `dir`, made there first if it has none. Two processes making one at once each write
 * whole files; the last one's pair wins, and each keeps using the pair it read or made.
 */
export const loadCa = (dir: string): CertificateAuthority => {
  const files = caFiles(dir)
  let certPem: string
  let keyPem: string
  if (existsSync(files.cert) && existsSync(files.key)) {
    certPem = readFileSync(files.cert, "utf8")
    keyPem = readFileSync(files.key, "utf8")
  } else {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const keys = rsaKeys()
    const f = forge()
    const cert = f.pki.createCertificate()
    cert.publicKey = f.pki.publicKeyFromPem(keys.publicPem)
    cert.serialNumber = serial()
    cert.validity.notBefore = new Date(Date.now() - 24 * 3600_000)
    cert.validity.notAfter = new Date(Date.now() + 5 * 365 * 24 * 3600_000)
    const subject = [{ name: "commonName", value: "simnet local CA" }, { name: "organizationName", value: "simnet (simulated network; trust only for tests)" }]
    cert.setSubject(subject)
    cert.setIssuer(subject)
    cert.setExtensions([
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
      { name: "subjectKeyIdentifier" }
    ])
    cert.sign(f.pki.privateKeyFromPem(keys.privatePem), f.md.sha256.create())
    certPem = f.pki.certificateToPem(cert)
    keyPem = keys.privatePem
    writeAtomically(files.key, keyPem, 0o600)
    writeAtomically(files.cert, certPem, 0o644)
  }
  const contexts = new Map<string, tls.SecureContext>()
  let leaf: { readonly privatePem: string; readonly publicPem: string } | undefined
  return {
    certFile: files.cert,
    certPem,
    contextFor: (host) => {
      const found = contexts.get(host)
      if (found !== undefined) return found
      leaf ??= rsaKeys()
      const f = forge()
      const issuer = f.pki.certificateFromPem(certPem)
      const cert = f.pki.createCertificate()
      cert.publicKey = f.pki.publicKeyFromPem(leaf.publicPem)
      cert.serialNumber = serial()
      cert.validity.notBefore = new Date(Date.now() - 24 * 3600_000)
      cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000)
      cert.setSubject([{ name: "commonName", value: host.slice(0, 64) }])
      cert.setIssuer(issuer.subject.attributes)
      const ip = /^[\d.]+$|:/.test(host)
      cert.setExtensions([
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", serverAuth: true },
        { name: "subjectAltName", altNames: [ip ? { type: 7, ip: host.replace(/^\[|\]$/g, "") } : { type: 2, value: host }] }
      ])
      cert.sign(f.pki.privateKeyFromPem(keyPem), f.md.sha256.create())
      const context = tls.createSecureContext({ key: leaf.privatePem, cert: `${f.pki.certificateToPem(cert)}${certPem}` })
      // Bounded: a client naming endless hosts costs at most this many contexts.
      if (contexts.size >= 4096) contexts.delete(contexts.keys().next().value!)
      contexts.set(host, context)
      return context
    }
  }
}
