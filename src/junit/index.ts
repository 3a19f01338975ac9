/**
 * Test reports: JUnit XML (node:test, vitest, jest, pytest) read into test cases, with where each
 * failure points. Pure; the code domain's targets come from here.
 */
export {
  firstProjectFrame,
  type JunitOptions,
  type JunitRead,
  parseJunitReport,
  projectPath,
  type TestCase,
} from './junit-report.js';
export {
  flakyTests,
  type Narrowing,
  type TestTarget,
  type TestTargets,
  testName,
  testTargets,
} from './test-targets.js';
export {
  decodeEntities,
  MAX_XML_DEPTH,
  readXml,
  textOf,
  type XmlElement,
  type XmlNode,
  type XmlRead,
} from './xml-tree.js';
