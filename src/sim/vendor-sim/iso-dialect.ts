/**
 * How an ISO 15143-3 feed writes its documents, the ways real feeds differ; every switch absent writes as the provider
 * always has (its row of the table in iso.ts).
 */
export interface IsoDialect {
  /** XML or JSON whatever the catalog says the provider speaks (a reader must be told the same). */
  format?: 'xml' | 'json';
  /** `default`: the provider's xmlns; `none`: no namespace; `prefixed`: every name as `aemp:Name` (JSON keys too). */
  namespace?: 'default' | 'none' | 'prefixed';
  /** `links` instead of `Links`. */
  lowerCaseLinks?: boolean;
  /** JSON only: the page wrapped in a top-level array. */
  topLevelArray?: boolean;
  /** Readings' datetime as an attribute (JSON: an `@datetime` key, as XML-to-JSON converters write it) or a child. */
  datetime?: 'attribute' | 'element';
  /** How times are written: with or without fractional seconds and `Z`. */
  times?: 'z' | 'fractional_z' | 'fractional_no_z' | 'no_z';
  /** MiX-style names: `OdometerKilometre`, `FuelConsumedLitres`, plus `FuelUsedLast24` and `CumulativeIdleNonOperatingHours`. */
  mixNames?: boolean;
  /**
   * The ISO 15143-3:2016 elements beyond the simulator's usual ones: Location altitude, PTO and idle non-operating
   * hours, fuel used in the last 24 h, fuel and DEF tank capacities, load count, payload total, EngineNumber.
   */
  extraElements?: boolean;
  /** Machines (by index) that send their header and no reading. */
  headerOnly?: readonly number[];
  /** Machines (by index) whose Model, SerialNumber and OEMName are `missing`, empty or a 0001-01-01 time. */
  placeholders?: readonly number[];
  /** Machines (by index) without EquipmentID whose PIN and SerialNumber are `missing`: nothing identifies them. */
  anonymous?: readonly number[];
  /** Whitespace (or a byte order mark) written before the document. */
  leadingWhitespace?: string;
  /** Every machine carries an element the standard does not define (`BatteryPotential`). */
  unmappedElement?: boolean;
  /** Every machine's odometer in a unit nobody maps (`furlong`). */
  unknownUnit?: boolean;
  /** This fleet page answers 200 with a document cut off halfway. */
  brokenPage?: number;
}
