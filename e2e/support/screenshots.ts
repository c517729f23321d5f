import fs from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";

/**
 * Saves a full-page screenshot into e2e/artifacts/ (gitignored): `<name>-1280.png`, and at 390 px
 * too when asked, where the page must also fit: nothing may scroll sideways but what is meant to.
 */
export const ARTIFACTS = path.resolve("e2e/artifacts");

export async function snap(page: Page, name: string, options: { phone?: boolean } = {}): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const desktop = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${desktop.width}.png`), fullPage: true });
  if (!options.phone) return;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-390.png`), fullPage: true });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(390);
  await page.setViewportSize(desktop);
}
