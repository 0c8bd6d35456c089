/**
 * Headless Chromium for browser tests, with web security and site isolation ON: the flags of
 * `@sparticuz/chromium`'s default `args` that turn them off (`--disable-web-security`, the
 * site-isolation switches, insecure content) are dropped, so a page from a foreign origin is held
 * to the same-origin policy as in a real user's browser and a test of cross-origin refusals proves
 * something. `--single-process` goes too: it folds every site into one renderer.
 */
import chromium from "@sparticuz/chromium"
import { join } from "node:path"
import puppeteer, { type Browser, type Page } from "puppeteer-core"

const WEAKENING = [
  /^--disable-web-security$/,
  /^--disable-site-isolation-trials$/,
  /^--allow-running-insecure-content$/,
  /^--disable-features=.*(IsolateOrigins|site-per-process)/,
  /^--single-process$/
]

/** The launch flags: sparticuz's, less every one that weakens the same-origin policy. */
export const secureArgs = (extra: ReadonlyArray<string> = []): Array<string> => [
  ...chromium.args.filter((arg) => !WEAKENING.some((pattern) => pattern.test(arg))),
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  ...extra
]

/** Launches Chromium with `secureArgs(extra)`. */
export const launchSecureChromium = async (extra: ReadonlyArray<string> = []): Promise<Browser> =>
  puppeteer.launch({ executablePath: await chromium.executablePath(), args: secureArgs(extra), headless: true })

/**
 * Clicks `selector` on `page` and resolves with the path of the file the click downloaded, once
 * Chromium says it is complete (`Browser.downloadProgress`): an awaited event, not a folder polled.
 */
export const download = async (page: Page, selector: string, into: string): Promise<string> => {
  const cdp = await page.createCDPSession()
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allowAndName", downloadPath: into, eventsEnabled: true })
  const done = new Promise<string>((resolve, reject) => {
    cdp.on("Browser.downloadProgress", (event) => {
      if (event.state === "completed") resolve(join(into, event.guid))
      if (event.state === "canceled") reject(new Error(`the download from ${selector} was canceled`))
    })
  })
  await page.click(selector)
  return done
}
