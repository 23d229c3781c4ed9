// Jenkins' junit-10 schema (test/output/fixtures/junit-10.xsd), validated by libxml2's xmllint
// compiled to WebAssembly: what the JUnit reports are checked against wherever they are made.
import { readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';

const XSD = readFileSync(new URL('../output/fixtures/junit-10.xsd', import.meta.url), 'utf8');

/** What the schema refuses in `xml`, one message each; empty when it is valid. */
export async function junitSchemaErrors(xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    schema: [{ fileName: 'junit-10.xsd', contents: XSD }],
  });
  return result.errors.map((e) => e.rawMessage);
}
