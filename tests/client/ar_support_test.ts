/**
 * "View in AR" capability detection (lib/client/ar_support.ts) over real user agents: Quick Look
 * where anchors support `rel="ar"` (and the iOS browsers that open it though theirs do not),
 * Scene Viewer on Android's Chromium browsers but not in web views, Firefox or headsets, and
 * nothing on desktops.
 */
import assert from "node:assert/strict";
import { arModeOf, browserArMode, detectArSupport } from "@/lib/client/ar_support.ts";

const UA = {
  iphoneSafari:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  ipadSafari:
    "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
  // iPadOS 13+ Safari asks for desktop sites: a Mac user agent, but its anchors support rel=ar.
  ipadDesktopMode:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
  iphoneChrome:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/123.0.6312.52 Mobile/15E148 Safari/604.1",
  iphoneFirefox:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/124.0 Mobile/15E148 Safari/605.1.15",
  iphoneInstagram:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 324.0.4.26.52",
  androidChrome:
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  androidSamsung:
    "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36",
  androidTabletChrome:
    "Mozilla/5.0 (Linux; Android 14; Pixel Tablet) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  androidWebView:
    "Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36",
  androidFirefox: "Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0",
  quest:
    "Mozilla/5.0 (X11; Linux x86_64; Quest 3) AppleWebKit/537.36 (KHTML, like Gecko) OculusBrowser/32.0.0.3.71 SamsungBrowser/4.0 Chrome/122.0.6261.160 VR Safari/537.36",
  desktopChrome:
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  desktopHeadless:
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36",
  macSafari:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
  windowsEdge:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0",
};

Deno.test("ar support - the mode of each browser", async (t) => {
  const cases: Array<[string, string, boolean, string | null]> = [
    ["iPhone Safari (relList supports ar)", UA.iphoneSafari, true, "quick-look"],
    ["iPad Safari", UA.ipadSafari, true, "quick-look"],
    ["iPad in desktop mode (Mac UA, relList supports ar)", UA.ipadDesktopMode, true, "quick-look"],
    ["Chrome on iOS (relList says no)", UA.iphoneChrome, false, "quick-look"],
    ["Firefox on iOS", UA.iphoneFirefox, false, "quick-look"],
    ["an iOS in-app browser without rel=ar", UA.iphoneInstagram, false, null],
    ["iOS Safari whose relList says no (Quick Look disabled)", UA.iphoneSafari, false, null],
    ["Chrome on Android", UA.androidChrome, false, "scene-viewer"],
    ["Samsung Internet", UA.androidSamsung, false, "scene-viewer"],
    ["Chrome on an Android tablet", UA.androidTabletChrome, false, "scene-viewer"],
    ["an Android app's WebView", UA.androidWebView, false, null],
    ["Firefox on Android", UA.androidFirefox, false, null],
    ["a Quest headset's browser", UA.quest, false, null],
    ["desktop Chrome", UA.desktopChrome, false, null],
    ["headless Chromium", UA.desktopHeadless, false, null],
    ["Safari on a Mac (relList says no)", UA.macSafari, false, null],
    ["Edge on Windows", UA.windowsEdge, false, null],
    ["an empty user agent", "", false, null],
  ];
  for (const [label, userAgent, anchorSupportsAr, mode] of cases) {
    await t.step(label, () => {
      assert.equal(arModeOf({ userAgent, anchorSupportsAr }), mode);
    });
  }
});

Deno.test("ar support - outside a browser nothing is offered", async () => {
  assert.equal(typeof document, "undefined");
  assert.deepEqual(await detectArSupport(), { mode: null, webxr: false });
  assert.equal(browserArMode(), null);
});
