/**
 * The local certificate authority of `simnet serve`'s proxy: made on first use (an RSA 2048 key
 * by Node's crypto), kept in a per-user directory (`--ca-dir`, else `SIMNET_CA_DIR`, else
 * `$XDG_CONFIG_HOME/simnet/ca` or `~/.config/simnet/ca`) with the key readable by its owner only,
 * never shipped in the package. A `CONNECT host:443` is answered with a certificate for that host,
 * signed when first asked for and kept for the life of the CA, on the proxy's TLS thread
 * (`tlsThread.ts`), where the handshakes run too.
 *
 * A CA directory is checked before it is used (`checkCa`, at `simnet serve`'s start and by
 * `simnet ca`): the certificate must be a CA certificate with an RSA key, the key must be the
 * certificate's, both must be the user's own, and neither the directory nor the key may be open
 * to others (a key others can read signs certificates they can use; a directory others can write
 * lets them swap the CA). Each problem is a message saying how to fix it.
 *
 * Certificates are laid out by `node-forge` (ASN.1 only) and signed by Node's crypto.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject, sign, X509Certificate } from "node:crypto"
import { existsSync, lstatSync, readFileSync, statSync } from "node:fs"
import { homedir } from "node:os"
import * as path from "node:path"
import type * as Forge from "node-forge"
import { makeDirectory, writeFileAtomic } from "../fileSystem/files.ts"
import { errorMessage } from "../registry/util.ts"
import { forge, serial, toBeSigned } from "./tlsThread.ts"

/** Where the CA lives: the flag, the environment, else the user's config directory. */
export const caDirectory = (flag?: string | undefined): string =>
  flag ??
  process.env["SIMNET_CA_DIR"] ??
  path.join(process.env["XDG_CONFIG_HOME"] ?? path.join(homedir(), ".config"), "simnet", "ca")

/** The files of a CA directory. */
export const caFiles = (dir: string) => ({
  cert: path.join(dir, "simnet-ca.pem"),
  key: path.join(dir, "simnet-ca-key.pem")
})

/** A CA directory that cannot be used, and what to do about it (the message says both). */
export class CaProblem extends Error {
  override readonly name = "CaProblem"
}

/** A certificate laid out by forge, signed with `key` by Node's crypto: its PEM. */
const signed = (cert: Forge.pki.Certificate, key: KeyObject): string => {
  cert.signature = sign("sha256", toBeSigned(cert), key).toString("binary")
  return forge().pki.certificateToPem(cert)
}

/** Modes as `ls` writes them (`0644`). */
const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`

const uid = () => process.getuid?.()

/** Why `file` (the key, or the certificate) is not safe to use: not a plain file of ours, or open to others. */
const fileProblem = (file: string, secret: boolean): string | undefined => {
  const stat = lstatSync(file)
  if (stat.isSymbolicLink())
    return `${file} is a symbolic link; simnet uses only a CA's own files (remove it, and simnet makes a new CA there)`
  if (!stat.isFile()) return `${file} is not a regular file`
  const me = uid()
  if (me !== undefined && stat.uid !== me)
    return `${file} belongs to another user (uid ${stat.uid}); use a CA directory of your own (--ca-dir, SIMNET_CA_DIR)`
  const open = stat.mode & (secret ? 0o077 : 0o022)
  if (open !== 0) {
    return secret
      ? `the CA key ${file} can be ${(stat.mode & 0o044) !== 0 ? "read" : "used"} by others (mode ${octal(stat.mode)}); run: chmod 600 '${file}'`
      : `${file} can be changed by others (mode ${octal(stat.mode)}); run: chmod go-w '${file}'`
  }
  return undefined
}

/** Why `dir` (which exists) is not safe to keep a CA in. */
const directoryProblem = (dir: string): string | undefined => {
  const stat = statSync(dir)
  if (!stat.isDirectory()) return `${dir} is not a directory`
  const me = uid()
  if (me !== undefined && stat.uid !== me)
    return `the CA directory ${dir} belongs to another user (uid ${stat.uid}); use a directory of your own (--ca-dir, SIMNET_CA_DIR)`
  if ((stat.mode & 0o022) !== 0)
    return `the CA directory ${dir} can be written by others (mode ${octal(stat.mode)}), who could replace the CA; run: chmod go-w '${dir}', or use another directory`
  return undefined
}

/** What the checks read of a CA: the certificate's PEM and the key. */
interface CaMaterial {
  readonly certPem: string
  readonly key: KeyObject
}

/** The CA's files read and checked: a CA certificate, an RSA key, the pair matching, not expired. */
const readMaterial = (files: { readonly cert: string; readonly key: string }): CaMaterial => {
  const problem = fileProblem(files.key, true) ?? fileProblem(files.cert, false)
  if (problem !== undefined) throw new CaProblem(problem)
  const remake = `(remove ${path.dirname(files.cert)} and simnet makes a new CA there)`
  const certPem = readFileSync(files.cert, "utf8")
  let cert: X509Certificate
  try {
    cert = new X509Certificate(certPem)
  } catch (error) {
    throw new CaProblem(`${files.cert} is not a PEM certificate (${errorMessage(error)}) ${remake}`)
  }
  let key: KeyObject
  try {
    key = createPrivateKey(readFileSync(files.key))
  } catch (error) {
    throw new CaProblem(`${files.key} is not a PEM private key (${errorMessage(error)}) ${remake}`)
  }
  if (!cert.ca) throw new CaProblem(`${files.cert} is not a CA certificate ${remake}`)
  if (key.asymmetricKeyType !== "rsa")
    throw new CaProblem(
      `${files.key} is an ${String(key.asymmetricKeyType).toUpperCase()} key; simnet's CA signs with RSA ${remake}`
    )
  if (!cert.checkPrivateKey(key)) throw new CaProblem(`${files.key} is not the key of ${files.cert} ${remake}`)
  if (cert.validToDate.getTime() < Date.now()) throw new CaProblem(`${files.cert} expired on ${cert.validTo} ${remake}`)
  return { certPem, key }
}

/** A new CA's key and self-signed certificate, written to `files` (key first, owner-only). */
const makeMaterial = (files: { readonly cert: string; readonly key: string }): CaMaterial => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const f = forge()
  const cert = f.pki.createCertificate()
  cert.publicKey = f.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString())
  cert.serialNumber = serial()
  cert.validity.notBefore = new Date(Date.now() - 24 * 3600_000)
  cert.validity.notAfter = new Date(Date.now() + 5 * 365 * 24 * 3600_000)
  const subject = [
    { name: "commonName", value: "simnet local CA" },
    { name: "organizationName", value: "simnet (simulated network; trust only for tests)" }
  ]
  cert.setSubject(subject)
  cert.setIssuer(subject)
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" }
  ])
  const certPem = signed(cert, privateKey)
  writeFileAtomic(files.key, privateKey.export({ type: "pkcs1", format: "pem" }).toString(), 0o600)
  writeFileAtomic(files.cert, certPem, 0o644)
  return { certPem, key: privateKey }
}

/**
 * Checks the CA in `dir` without making one: when it has one, that it can be used (else a
 * `CaProblem` saying why and how to fix it); when it has none, that one can be made there. For
 * a server that makes its CA at the first `CONNECT`, this is the start-up check.
 */
export const checkCa = (dir: string): void => {
  if (existsSync(dir)) {
    existingMaterial(dir)
    return
  }
  // Made later: its nearest existing ancestor must be a directory.
  let at = path.dirname(path.resolve(dir))
  while (!existsSync(at)) at = path.dirname(at)
  if (!statSync(at).isDirectory()) throw new CaProblem(`cannot make the CA directory ${dir}: ${at} is not a directory`)
}

/** A CA: its certificate (PEM, what clients trust) and its key (PEM), which signs a host's certificate on the proxy's TLS thread. */
export interface CertificateAuthority {
  readonly certFile: string
  readonly certPem: string
  readonly keyPem: string
}

/**
 * The CA in `dir`, made there first if it has none (the directory too, owner-only), checked as
 * `checkCa` says; a `CaProblem` (or an `Error` naming the path that could not be made) when it
 * cannot be used. Two processes making one at once each write whole files.
 */
export const loadCa = (dir: string): CertificateAuthority => {
  const files = caFiles(dir)
  if (!existsSync(dir)) makeDirectory(dir, 0o700)
  return authorityOf(files.cert, existingMaterial(dir) ?? makeMaterial(files))
}

/** The CA an existing directory holds, checked (`checkCa`), or undefined when it holds none; a `CaProblem` when either cannot be used. */
const existingMaterial = (dir: string): CaMaterial | undefined => {
  const problem = directoryProblem(dir)
  if (problem !== undefined) throw new CaProblem(problem)
  const files = caFiles(dir)
  return existsSync(files.cert) || existsSync(files.key) ? readMaterial(files) : undefined
}

const authorityOf = (certFile: string, { certPem, key }: CaMaterial): CertificateAuthority => ({
  certFile,
  certPem,
  keyPem: key.export({ type: "pkcs8", format: "pem" }).toString()
})
