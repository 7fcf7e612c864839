-- The text of each consent document, per language, so the service serves the pages its documents link to
-- (/legal/<key>/<version>/<lang>): PIPA art. 22 asks that users see what they agree to. Depends on 0015.

-- {"ko": "…", "en": "…"}: plain text, paragraphs apart by a blank line, `## ` a heading, `- ` a list item.
-- The page escapes all of it: no markup from here ever reaches a browser as markup. A version published with
-- pages elsewhere (an http(s) --url) has none.
ALTER TABLE consent_document_versions
  ADD COLUMN bodies jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(bodies) = 'object');

-- The six documents a fresh install seeds (0015), version 1: starter texts that an operator replaces by
-- publishing a version 2. Only rows still without a text are filled.
UPDATE consent_document_versions SET bodies = jsonb_build_object('ko', $ko$이 문서는 운영자가 실제 약관으로 바꾸어 게시해야 하는 기본 예시입니다.

## 제1조 (목적)
이 약관은 회사가 제공하는 계정 서비스와 그에 연결된 앱 및 웹 서비스(이하 "서비스")의 이용 조건과 절차, 회사와 이용자의 권리·의무를 정합니다.

## 제2조 (계정)
- 이용자는 이메일과 비밀번호 또는 연결된 외부 계정으로 가입하며, 본인의 정보를 정확하게 입력해야 합니다.
- 계정과 비밀번호의 관리 책임은 이용자에게 있습니다. 도용이 의심되면 즉시 비밀번호를 바꾸고 회사에 알려 주세요.
- 계정은 다른 사람에게 양도하거나 빌려줄 수 없습니다.

## 제3조 (이용자의 의무)
이용자는 법령과 이 약관을 지켜야 하며, 다른 사람의 권리를 침해하거나 서비스의 운영을 방해하는 게시물 작성, 자동화된 대량 요청, 타인 사칭 등을 해서는 안 됩니다.

## 제4조 (게시물)
이용자가 올린 게시물의 권리는 이용자에게 있습니다. 회사는 서비스를 제공하는 데 필요한 범위에서만 게시물을 저장하고 표시합니다. 법령이나 이 약관을 위반한 게시물은 삭제될 수 있습니다.

## 제5조 (서비스의 변경과 중단)
회사는 서비스의 내용을 바꾸거나 점검을 위해 일시 중단할 수 있으며, 이용자에게 불리한 중요한 변경은 미리 알립니다.

## 제6조 (탈퇴와 이용 제한)
이용자는 언제든지 앱 또는 웹의 프로필에서 탈퇴할 수 있습니다. 탈퇴를 요청하면 유예 기간(기본 14일) 동안 취소할 수 있고, 그 뒤 계정과 관련 정보가 삭제됩니다. 회사는 이 약관을 중대하게 위반한 계정의 이용을 제한할 수 있습니다.

## 제7조 (약관의 변경)
약관을 바꿀 때에는 새 버전을 게시하고 적용일 전에 알리며, 이용자는 다음 로그인 때 새 버전에 동의해야 서비스를 계속 이용할 수 있습니다.

## 제8조 (문의)
서비스에 관한 문의는 운영자가 안내하는 고객센터로 해 주세요.$ko$, 'en', $en$This is a starter text: the operator replaces it by publishing the real terms.

## 1. Purpose
These terms set out the conditions for using the account service and the apps and web pages connected to it (the "Service"), and the rights and duties of the company and its users.

## 2. Your account
- You sign up with an email address and a password, or with a linked external account, and give accurate information.
- You are responsible for keeping your password safe. If you suspect misuse, change your password at once and tell us.
- You may not transfer or lend your account to anyone else.

## 3. Your obligations
Follow the law and these terms. Do not post content that infringes the rights of others, impersonate others, send automated bulk requests, or otherwise disrupt the Service.

## 4. Your content
You keep the rights to what you post. We store and display it only as far as needed to provide the Service. Content that breaks the law or these terms may be removed.

## 5. Changes to and interruptions of the Service
We may change the Service or pause it for maintenance. We announce important changes that are unfavourable to you in advance.

## 6. Leaving, and restrictions
You can delete your account at any time from your profile in the app or on the web. After you ask, you can take the request back during a grace period (14 days by default); then the account and the information tied to it are deleted. We may restrict an account that seriously breaks these terms.

## 7. Changes to these terms
A change is published as a new version and announced before it takes effect; you agree to the new version at your next sign-in to keep using the Service.

## 8. Contact
Send questions about the Service to the support contact the operator provides.$en$)
WHERE key = 'terms' AND version = 1 AND bodies = '{}';

UPDATE consent_document_versions SET bodies = jsonb_build_object('ko', $ko$이 문서는 운영자가 실제 개인정보 수집·이용 안내로 바꾸어 게시해야 하는 기본 예시입니다.

## 수집하는 항목
- 가입할 때(필수): 이메일 주소, 사용자 이름, 프로필 주소(slug), 성별, 비밀번호(복원할 수 없는 해시로만 저장)
- 입력한 경우(선택): 프로필 사진, 자기소개, 연결한 외부 계정의 식별자
- 앱을 쓰는 동안: 기기 정보(기기 식별자, 플랫폼, 푸시 토큰, 앱·운영체제 버전, 언어, 시간대)
- 보안 기록: 로그인, 비밀번호 변경 등 계정 활동의 시각, IP 주소, 브라우저·앱 정보(User-Agent)
- 동의 기록: 동의하거나 철회한 문서와 버전, 시각, IP 주소

## 이용 목적
회원 가입과 본인 확인, 로그인과 계정 관리, 프로필과 게시물 등 서비스 제공, 알림 발송, 계정 도용과 부정 이용 방지, 문의 응대와 분쟁 해결을 위해 이용합니다.

## 보유 및 이용 기간
회원 탈퇴 때까지 보유합니다. 탈퇴를 요청하면 유예 기간(기본 14일) 동안 취소할 수 있고, 유예 기간이 끝나면 계정과 위 정보가 지체 없이 삭제됩니다. 보안 기록은 탈퇴 전이라도 365일이 지나면 삭제됩니다. 법령이 따로 보존을 정한 정보는 그 기간 동안 보관합니다.

## 동의를 거부할 권리
이용자는 개인정보 수집·이용에 대한 동의를 거부할 수 있습니다. 다만 위의 필수 항목은 서비스 제공에 꼭 필요하므로, 동의하지 않으면 가입할 수 없습니다. 선택 항목은 입력하지 않아도 서비스를 이용할 수 있습니다.

## 이용자의 권리
프로필에서 언제든지 자기 정보를 열람·수정하고, 내 데이터 사본을 내려받거나, 계정을 삭제할 수 있습니다.$ko$, 'en', $en$This is a starter text: the operator replaces it with the service's real notice on personal information.

## What we collect
- At sign-up (required): email address, username, profile address (slug), gender, password (kept only as a hash that cannot be reversed)
- If you give them (optional): profile picture, bio, the identifier of an external account you link
- While you use the app: device data (device identifier, platform, push token, app and operating system versions, language, time zone)
- Security records: the time, IP address and browser or app (user agent) of account activity such as sign-ins and password changes
- Consent records: the documents and versions you agreed to or withdrew from, with the time and IP address

## Why
To create your account and confirm it is yours, to sign you in and manage the account, to provide the Service (your profile, your posts, notifications), to prevent account takeover and abuse, and to answer requests and settle disputes.

## How long
Until you delete your account. After you ask for deletion you can take it back during a grace period (14 days by default); when it ends, the account and the information above are deleted without delay. Security records are deleted after 365 days even while the account exists. Information the law requires us to keep is kept for the period the law sets.

## Your right to refuse
You may refuse to consent to this collection and use. The required items are needed to provide the Service, so without them you cannot sign up; the optional items can be left out and you can still use the Service.

## Your rights
From your profile you can see and correct your information, download a copy of your data, and delete your account at any time.$en$)
WHERE key = 'privacy' AND version = 1 AND bodies = '{}';

UPDATE consent_document_versions SET bodies = jsonb_build_object('ko', $ko$이 문서는 운영자가 실제 내용으로 바꾸어 게시해야 하는 기본 예시입니다.

## 받게 되는 정보
이벤트, 할인·혜택, 새 기능과 추천 콘텐츠 등 광고성 정보를 가입한 이메일 주소로 보내 드립니다. 제목에 (광고)를 표시합니다.

## 이용하는 항목과 기간
이메일 주소와 사용자 이름을 동의를 철회하거나 탈퇴할 때까지 이용합니다.

## 선택 동의
이 동의는 선택 사항이며, 동의하지 않아도 서비스를 이용하는 데 제한이 없습니다. 프로필의 개인정보 설정이나 메일 하단의 수신 거부 링크로 언제든지 철회할 수 있습니다. 정보통신망법에 따라 2년마다 수신 동의 여부를 다시 확인하며, 다시 확인하지 않으면 동의가 철회됩니다.$ko$, 'en', $en$This is a starter text: the operator replaces it with the real terms of the marketing.

## What you will receive
Advertising: events, discounts and offers, new features and recommended content, sent to the email address of your account, with "(Ad)" in the subject.

## What we use, and for how long
Your email address and username, until you withdraw this consent or delete your account.

## Optional
This consent is optional: refusing it does not limit your use of the Service. Withdraw it at any time in the privacy settings of your profile or with the unsubscribe link in each mail. As the Network Act requires, we ask you to confirm it every two years; without a confirmation it is withdrawn.$en$)
WHERE key = 'marketing_email' AND version = 1 AND bodies = '{}';

UPDATE consent_document_versions SET bodies = jsonb_build_object('ko', $ko$이 문서는 운영자가 실제 내용으로 바꾸어 게시해야 하는 기본 예시입니다.

## 받게 되는 정보
이벤트, 할인·혜택, 새 기능과 추천 콘텐츠 등 광고성 정보를 앱 푸시 알림으로 보내 드립니다. 알림 앞에 (광고)를 표시합니다. 21시부터 다음 날 8시까지는 "야간 광고성 푸시 수신"에 따로 동의한 경우에만 보냅니다.

## 이용하는 항목과 기간
기기의 푸시 토큰과 언어·시간대를 동의를 철회하거나 탈퇴할 때까지 이용합니다.

## 선택 동의
이 동의는 선택 사항이며, 동의하지 않아도 서비스를 이용하는 데 제한이 없습니다. 계정 보안 알림처럼 광고가 아닌 알림은 이 동의와 관계없이 보냅니다. 프로필의 개인정보 설정에서 언제든지 철회할 수 있으며, 2년마다 수신 동의 여부를 다시 확인합니다.$ko$, 'en', $en$This is a starter text: the operator replaces it with the real terms of the marketing.

## What you will receive
Advertising: events, discounts and offers, new features and recommended content, as push notifications in the app, marked "(Ad)". Between 21:00 and 08:00 only if you have also agreed to marketing push notifications at night.

## What we use, and for how long
Your device's push token, language and time zone, until you withdraw this consent or delete your account.

## Optional
This consent is optional: refusing it does not limit your use of the Service. Notifications that are not advertising, such as security alerts, are sent regardless. Withdraw it at any time in the privacy settings of your profile; we ask you to confirm it every two years.$en$)
WHERE key = 'marketing_push' AND version = 1 AND bodies = '{}';

UPDATE consent_document_versions SET bodies = jsonb_build_object('ko', $ko$이 문서는 운영자가 실제 내용으로 바꾸어 게시해야 하는 기본 예시입니다.

## 받게 되는 정보
이벤트, 할인·혜택 등 광고성 정보를 이용자가 이 용도로 알려 준 휴대전화 번호로 문자 메시지(SMS·MMS)로 보내 드립니다. 메시지 앞에 (광고)와 수신 거부 방법을 표시합니다.

## 이용하는 항목과 기간
휴대전화 번호와 사용자 이름을 동의를 철회하거나 탈퇴할 때까지 이용합니다.

## 선택 동의
이 동의는 선택 사항이며, 동의하지 않아도 서비스를 이용하는 데 제한이 없습니다. 프로필의 개인정보 설정이나 문자에 적힌 무료 수신 거부 번호로 언제든지 철회할 수 있으며, 2년마다 수신 동의 여부를 다시 확인합니다.$ko$, 'en', $en$This is a starter text: the operator replaces it with the real terms of the marketing.

## What you will receive
Advertising such as events, discounts and offers, as text messages (SMS or MMS) to the mobile number you give us for this purpose, marked "(Ad)" with a way to opt out.

## What we use, and for how long
Your mobile number and username, until you withdraw this consent or delete your account.

## Optional
This consent is optional: refusing it does not limit your use of the Service. Withdraw it at any time in the privacy settings of your profile or through the free opt-out number in each message; we ask you to confirm it every two years.$en$)
WHERE key = 'marketing_sms' AND version = 1 AND bodies = '{}';

UPDATE consent_document_versions SET bodies = jsonb_build_object('ko', $ko$이 문서는 운영자가 실제 내용으로 바꾸어 게시해야 하는 기본 예시입니다.

## 야간 광고성 정보 수신
정보통신망법 제50조에 따라 21시부터 다음 날 8시까지 광고성 정보를 보내려면 별도의 동의가 필요합니다. 동의하면 이 시간에도 이벤트, 할인·혜택 등 광고성 앱 푸시 알림을 받을 수 있습니다. 시간은 기기에 설정된 시간대를 기준으로 합니다.

## 이용하는 항목과 기간
기기의 푸시 토큰과 시간대를 동의를 철회하거나 탈퇴할 때까지 이용합니다. 광고성 정보 앱 푸시 수신에도 동의한 경우에만 보냅니다.

## 선택 동의
이 동의는 선택 사항이며, 동의하지 않아도 서비스를 이용하는 데 제한이 없고 낮 시간의 알림에도 영향이 없습니다. 프로필의 개인정보 설정에서 언제든지 철회할 수 있으며, 2년마다 수신 동의 여부를 다시 확인합니다.$ko$, 'en', $en$This is a starter text: the operator replaces it with the real terms of the marketing.

## Advertising at night
Under article 50 of the Network Act, advertising between 21:00 and 08:00 needs a consent of its own. With it, you may receive advertising push notifications (events, discounts, offers) during those hours too, by the time zone set on your device.

## What we use, and for how long
Your device's push token and time zone, until you withdraw this consent or delete your account. They are sent only if you have also agreed to marketing push notifications.

## Optional
This consent is optional: refusing it does not limit your use of the Service or change daytime notifications. Withdraw it at any time in the privacy settings of your profile; we ask you to confirm it every two years.$en$)
WHERE key = 'night_push' AND version = 1 AND bodies = '{}';
