// Patients page: a PDQm-style search finds the patient; the timeline shows the Device reading
// events of readings posted through POST /api/v1/devices/readings (type filter, paging); the vitals
// chart draws them with min/max/average; the IPS summary reads as a clinical summary (the readings
// folded into the latest value with count and range); documents list; a misspelled name with the
// right birth date finds nobody and the PDQm matcher's "did you mean" offers the patient.
import { describe, expect, it } from "vitest";
import { adminApi, consolePerTest, docScreenshot, expectAccessible, fileOrgs, otherOrgPatient, replaceText, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

const HEART_RATES = [58, 64, 71, 90, 77, 66, 61, 83, 95, 70, 68, 74, 80, 62, 88, 73, 69, 76, 85, 60, 72, 79];

/** A patient with a linked watch, 22 heart-rate readings over the last day and a document. */
async function patientWithReadings(family: string): Promise<string> {
  const { orgId } = fileOrgs().orgA;
  const patient = await adminApi(`/fhir/r4/${orgId}/Patient`, { resourceType: "Patient", name: [{ family, given: ["Vera"] }], birthDate: "1961-04-12", gender: "female", identifier: [{ system: "urn:mrn", value: `MRN-${family}` }] });
  const device = await adminApi(`/api/v1/patients/${patient.id}/devices`, { name: "Polar Vantage", platform: "sports_watch" });
  const readings = HEART_RATES.map((value, i) => ({ patient_id: patient.id, device_id: device.device_id, metric: "heart_rate", value, unit: "bpm", time: { at: new Date(Date.now() - (i + 1) * 3_600_000).toISOString() }, platform: "sports_watch", source_record_id: `${family}-${i}` }));
  const answer = await adminApi("/api/v1/devices/readings", { readings });
  expect(answer.created).toBe(HEART_RATES.length);
  await adminApi(`/fhir/r4/${orgId}/DocumentReference`, {
    resourceType: "DocumentReference",
    status: "current",
    subject: { reference: `Patient/${patient.id}` },
    date: new Date().toISOString(),
    description: "Discharge letter",
    type: { text: "Discharge summary" },
    content: [{ attachment: { contentType: "text/plain", title: "letter.txt", data: btoa("Discharged in good health.") } }],
  });
  return String(patient.id);
}

describe("Patients page", () => {
  it("finds a patient by name and shows the timeline with Device reading events, paged and filtered", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const id = await patientWithReadings("Timelineson");
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, "/patients");
    await page.type("form[aria-label='Find patients'] input[name=name]", "Timelineson");
    await page.click("form[aria-label='Find patients'] button[type=submit]");
    await page.waitForFunction(() => document.querySelectorAll("main tbody tr").length === 1 && /Timelineson/.test(document.querySelector("main tbody")?.textContent ?? ""));
    await screenshot(page, "patients-search");
    await expectAccessible(page);

    await page.click("main tbody a");
    await page.waitForSelector(".timeline li");
    expect(await textOf(page, "main h1")).toBe("Vera Timelineson");
    const first = await page.$$eval(".timeline li", (lis) => lis.map((li) => li.textContent ?? ""));
    expect(first).toHaveLength(20);
    // The document (dated now) is the newest event; the rest of the page is readings.
    expect(first.filter((t) => t.includes("Device reading")).length).toBeGreaterThanOrEqual(19);
    expect(await textOf(page, "nav[aria-label='Timeline pages']")).toMatch(/1–20 of 2[34]/);
    await screenshot(page, "patient-timeline");
    await docScreenshot(page, "patient-timeline");
    await expectAccessible(page);

    await page.click("nav[aria-label='Timeline pages'] button:last-child");
    await page.waitForFunction(() => /21–/.test(document.querySelector("nav[aria-label='Timeline pages']")?.textContent ?? ""));
    await page.select("select[name=event_type]", "Document");
    await page.waitForFunction(() => document.querySelectorAll(".timeline li").length === 1 && /Document/.test(document.querySelector(".timeline")?.textContent ?? ""));
    await page.select("select[name=event_type]", "Encounter");
    await page.waitForFunction(() => /Nothing on the timeline/.test(document.querySelector("main")?.textContent ?? ""));
    expect(id).toBeTruthy();
  });

  it("draws the vitals chart with min, max and average; shows the IPS summary and the documents", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const id = await patientWithReadings("Chartwell");
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, `/patients/${id}?tab=vitals`);
    await page.waitForSelector(".vitals-chart canvas");
    const figures = await page.$$eval(".vitals-summary dd", (dds) => dds.map((d) => d.textContent ?? ""));
    const average = HEART_RATES.reduce((a, b) => a + b, 0) / HEART_RATES.length;
    expect(figures[0]).toBe(`${Math.min(...HEART_RATES)} bpm`);
    expect(figures[1]).toBe(`${Math.max(...HEART_RATES)} bpm`);
    expect(Number.parseFloat(figures[2] ?? "")).toBeCloseTo(average, 1);
    expect(figures[3]).toContain(String(HEART_RATES.length));
    expect(await page.$eval(".vitals-chart", (el) => el.getAttribute("aria-label"))).toContain(`${HEART_RATES.length} points`);
    await screenshot(page, "patient-vitals");
    await docScreenshot(page, "patient-vitals");
    await expectAccessible(page);

    await page.select("select[name=metric]", "spo2");
    await page.waitForFunction(() => /No spo2 readings/.test(document.querySelector("main")?.textContent ?? ""));
    // A vendor's daily average is charted apart from the samples (there are none here), not as one of them.
    const device = (await adminApi(`/api/v1/patients/${id}/devices`, { name: "Garmin Venu", platform: "sports_watch" })).device_id;
    const day = { start: new Date(Date.now() - 20 * 3_600_000).toISOString(), end: new Date(Date.now() - 2 * 3_600_000).toISOString() };
    const reading = { patient_id: id, device_id: device, metric: "spo2", value: 96, unit: "%", time: day, platform: "sports_watch", source_record_id: `${id}-daily`, attributes: { statistic: "average" } };
    expect((await adminApi("/api/v1/devices/readings", { readings: [reading] })).created).toBe(1);
    await page.select("select[name=metric]", "heart_rate");
    await page.waitForSelector(".vitals-summary");
    await page.select("select[name=metric]", "spo2");
    await page.waitForSelector("section[aria-label='spo2 average'] .vitals-chart canvas");
    expect(await textOf(page, "section[aria-label='spo2 average'] h3")).toBe("spo2 average, as the vendor reports it (1 value)");
    expect(await page.$(".vitals-summary")).toBeNull();

    await page.click("#tab-summary");
    await page.waitForSelector("section.ips-section");
    const sections = await page.$$eval("section.ips-section h3", (hs) => hs.map((h) => h.textContent ?? ""));
    expect(sections).toEqual(expect.arrayContaining(["Problem List", "Allergies and Intolerances", "Medication List", "Vital Signs", "Medical Devices"]));
    // The 22 heart rates are one row: LOINC's name, the latest value with its unit, its date, and the
    // run's count and range; the vendor's spo2 average is a row of its own, never among them.
    const vitals = await page.$$eval("section[aria-label='Vital Signs'] tbody tr", (trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent ?? "")));
    expect(vitals).toHaveLength(2);
    const heart = vitals.find((cells) => cells[0]!.startsWith("Heart rate"))!;
    expect(heart[0]).toMatch(/^Heart rate22 readings, .+ to .+, ranging 58 to 95 bpm/);
    expect(heart[1]).toBe(`${HEART_RATES[0]} bpm`);
    expect(heart[2]).toBe("final");
    expect(heart[3]).not.toBe("—");
    expect(vitals.find((cells) => cells !== heart)![1]).toBe("96 %");
    expect(await textOf(page, "section[aria-label='Medical Devices'] tbody")).toContain("Polar Vantage");
    expect(await textOf(page, "section[aria-label='Allergies and Intolerances']")).toContain("No information");
    await page.click("section[aria-label='Vital Signs'] summary");
    expect(await page.$$eval("section[aria-label='Vital Signs'] .ips-series li", (lis) => lis.length)).toBe(HEART_RATES.length);
    await screenshot(page, "patient-summary");
    await expectAccessible(page);

    await page.click("#tab-documents");
    await page.waitForSelector("section[aria-label=Documents] tbody tr");
    expect(await textOf(page, "section[aria-label=Documents] tbody")).toContain("Discharge letter");
    await page.click("section[aria-label=Documents] tbody button");
    expect(await page.$("section[aria-label=Documents] [role=alert]")).toBeNull();
    await screenshot(page, "patient-documents");
    await expectAccessible(page);
  });

  it("finds a patient by MRN and birth date, and offers the matcher's suggestions when a misspelled name finds nobody", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const id = await adminApi(`/fhir/r4/${orgId}/Patient`, { resourceType: "Patient", name: [{ family: "Przybylski", given: ["Magdalena"] }], birthDate: "1958-11-23", gender: "female", identifier: [{ system: "urn:mrn", value: "MRN-PRZ-58" }] });
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, "/patients");
    const form = "form[aria-label='Find patients']";
    await page.type(`${form} input[name=identifier]`, "MRN-PRZ-58");
    await page.click(`${form} button[type=submit]`);
    await page.waitForFunction(() => document.querySelectorAll("main tbody tr").length === 1 && /Magdalena Przybylski/.test(document.querySelector("main tbody")?.textContent ?? ""));

    await replaceText(page, `${form} input[name=identifier]`, "");
    await page.type(`${form} input[name=name]`, "Magdalena Przybilski");
    await page.$eval(`${form} input[name=birthdate]`, (el) => (el as HTMLInputElement).focus());
    await page.keyboard.type("11231958");
    await page.click(`${form} button[type=submit]`);
    await page.waitForSelector("section[aria-labelledby=did-you-mean] li");
    expect(await textOf(page, "main .empty h2")).toBe("No patients found");
    const first = await textOf(page, "section[aria-labelledby=did-you-mean] li");
    expect(first).toMatch(/^Magdalena Przybylski · born 1958-11-23 · MRN-PRZ-58 · (probable|possible) match$/);
    await screenshot(page, "patients-did-you-mean");
    await expectAccessible(page);
    await page.click("section[aria-labelledby=did-you-mean] li a");
    await page.waitForFunction((pid) => location.pathname === `/patients/${pid}`, {}, String(id.id));
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent === "Magdalena Przybylski");
  });

  it("shows not-found for another organization's patient id", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const theirs = await otherOrgPatient("Elsewhere");
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, `/patients/${theirs}`);
    expect(await textOf(page, "main [role=alert]")).toContain("Not found");
  });
});
